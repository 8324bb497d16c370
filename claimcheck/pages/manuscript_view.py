"""The annotated manuscript: every number the audit found, marked by what this run says about it.

Built from a :class:`claimcheck.manuscript.ManuscriptCheck` (drift and the number audit, which
know where each number is) and the claims of a ``claims.json`` (which know the verdicts). The
manuscript is the editor's file: it is read when the page is rendered and never stored by us.

A number's state is one of :data:`STATES`. A number bound to several claims (99.16% is C30.model's
figure and an input of C30.text's arithmetic) takes the *weakest* of their states, in the order of
:data:`WEAKEST_FIRST`, and its title names the claim that decided: a number is "holds" only when
every claim that binds it held on this runner. A machine-bound claim (``runner`` in the registry)
that its own runner did not run is "measured on another runner", never "holds". A number the
manuscript prints differently from the registry is ``drifted``, whatever the verdicts; numbers
that are not claims are ``waived`` (with the waiver's reason) or ``unbound``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from claimcheck import outcomes as oc
from claimcheck.pages import words
from claimcheck.results import ClaimEntry


@dataclass(frozen=True)
class State:
    key: str
    label: str


#: what a number of the manuscript can be, in the order the legend lists them
STATES = (
    State("held", "holds on this runner"),
    State("failed", "does not hold here (or its check is broken)"),
    State("inconclusive", "undecided (timing)"),
    State("drifted", "differs from the registry (drift)"),
    State("unchecked", "cannot be checked here"),
    State("elsewhere", "measured on another runner"),
    State("not-run", "not run"),
    State("waived", "waived: not a claim"),
    State("unbound", "bound to no claim"),
)
STATE_LABEL = {s.key: s.label for s in STATES}

#: the state of a claim of a bound number, from its outcome (its word's ``state``)
STATE_OF_OUTCOME = {w.word: w.state for w in oc.WORDS}

#: the states of a bound number's claims, weakest first: the first one present is the number's.
#: What the editor must act on comes first (the text differs, a claim fails, a timing is undecided);
#: then what no run has checked (not run, cannot be checked here, measured on another runner);
#: "holds" only when every claim held.
WEAKEST_FIRST = ("drifted", "failed", "inconclusive", "not-run", "unchecked", "elsewhere", "held")

#: states the manuscript page lists at its top, each a link to its line
ATTENTION = ("drifted", "failed", "inconclusive")


def claim_state(entry: ClaimEntry | None) -> str:
    """The state one claim gives the numbers it binds: its outcome's (:data:`STATE_OF_OUTCOME`),
    except a machine-bound claim its own runner did not pass: ``elsewhere`` (its figure was measured
    on another runner; a failure or an error stays ``failed``)."""
    if entry is None or entry.outcome not in oc.OUTCOMES:
        return "not-run" if entry is None else "failed"
    if entry.runner_bound and entry.outcome == oc.SKIPPED:
        return "elsewhere"
    return STATE_OF_OUTCOME[entry.outcome]


def weakest(states: dict[str, str]) -> tuple[str, str | None]:
    """``(state, claim that decided it)`` of a number bound to the claims ``{claim id: state}``:
    the first state of :data:`WEAKEST_FIRST` among them (``("not-run", None)`` for none)."""
    for state in WEAKEST_FIRST:
        for cid, s in states.items():
            if s == state:
                return state, cid
    return "not-run", None


@dataclass
class Mark:
    """One highlighted number: its anchor, state, the claim rows it links to, and the hover text."""

    anchor: str
    text: str
    line: int
    state: str
    claims: list[str]
    title: str
    href: str | None = None
    decided: str = ""  # the claim whose state the number shows (the weakest of its claims)


@dataclass
class ManuscriptView:
    """What the manuscript page shows, and the links the claims page needs back into it."""

    path: str
    sha256: str
    registry: str
    lines: list[list]  # per line: [str | Mark, ...]
    marks: list[Mark]
    counts: dict[str, int]
    problems: list[str] = field(
        default_factory=list
    )  # drift without a place, waiver problems, registry issues
    by_claim: dict[str, list[Mark]] = field(default_factory=dict)
    href: str = "manuscript.html"
    chapter: str = ""  # the chapter id of the registry it was checked against

    @property
    def attention(self) -> list[Mark]:
        """The numbers an editor must look at first (:data:`ATTENTION`: drifted, failing, undecided),
        in the text's order: the list at the top of the page."""
        return [m for m in self.marks if m.state in ATTENTION]

    @property
    def bound(self) -> int:
        return sum(m.state not in ("waived", "unbound") for m in self.marks)


def claim_summary(entry: ClaimEntry | None, cid: str) -> str:
    """One hover line for a claim: id, outcome, chapter value, this runner's value, the bar."""
    if entry is None:
        return f"{cid}: not in the claims report"
    parts = [f"{cid} {oc.label(entry.outcome)}"]
    if words.chapter_value(entry):
        parts.append(f"chapter {words.chapter_value(entry)}")
    if words.measured_value(entry):
        parts.append(f"here {words.measured_value(entry)}")
    parts.append(f"bar: {words.bar_words(entry)}")
    return " · ".join(parts)


def build(
    check,
    entries: dict[str, ClaimEntry],
    claims_href: str = "claims.html",
    waivers=(),
    href: str = "manuscript.html",
) -> ManuscriptView:
    """Return the :class:`ManuscriptView` of one manuscript check.

    Args:
        check: a :class:`claimcheck.manuscript.ManuscriptCheck`.
        entries: the claims of ``claims.json`` of the check's chapter, by id (may be empty: then
            bound numbers are ``not-run``).
        claims_href: the claims page, relative to the manuscript page (rows are
            ``#claim-<chapter>-<id>``, :func:`claimcheck.pages.words.anchor`).
        waivers: the registry's :class:`claimcheck.registry.Waiver` list (for the reasons on hover).
    """
    ms = check.manuscript
    reasons = {w.label: w.reason for w in waivers}
    drifted = [(q.span, q) for d in check.drifts for q in d.checks if q.status == "drift" and q.span]
    marks: list[Mark] = []
    for n, piece in enumerate(sorted(check.audit.pieces, key=lambda p: p.start), start=1):
        anchor = f"n{n}"
        if piece.status == "waived":
            why = "; ".join(reasons.get(label, label) for label in piece.by)
            marks.append(Mark(anchor, piece.text, piece.line, "waived", [], f"waived: {why}"))
            continue
        if piece.status == "unbound":
            marks.append(
                Mark(
                    anchor,
                    piece.text,
                    piece.line,
                    "unbound",
                    [],
                    "bound to no claim and not waived: bind it (a locator or quote) or waive it",
                )
            )
            continue
        cids = list(piece.by)
        hits = [q for span, q in drifted if span[0] <= piece.start and piece.end <= span[1]]
        hover = [claim_summary(entries.get(c), c) for c in cids]
        if hits:
            state, decided = "drifted", hits[0].claim_id
            hover = [
                q.message  # a citation's: both chapters and both figures
                if q.source
                else f"{q.claim_id} drift: the manuscript prints {q.manuscript}, the registry has {q.registry} "
                f"({q.name})"
                for q in hits
            ] + hover
        else:
            state, decided = weakest({c: claim_state(entries.get(c)) for c in cids})
        if len(cids) > 1 or hits:
            hover.insert(0, f"{STATE_LABEL[state]}: decided by {decided} (the weakest of {', '.join(cids)})")
        else:
            hover.insert(0, STATE_LABEL[state])
        from claimcheck.keys import qualify

        marks.append(
            Mark(
                anchor,
                piece.text,
                piece.line,
                state,
                cids,
                "\n".join(hover),
                f"{claims_href}#{words.anchor(qualify(getattr(check, 'chapter', ''), decided or cids[0]))}",
                decided=decided or "",
            )
        )
    # the text, cut at the marks, line by line
    lines: list[list] = [[]]
    pos = 0
    pieces = sorted(check.audit.pieces, key=lambda p: p.start)

    def add_text(text: str):
        first, *rest = text.split("\n")
        if first:
            lines[-1].append(first)
        for chunk in rest:
            lines.append([chunk] if chunk else [])

    for piece, mark in zip(pieces, marks):
        raw = ms.text[piece.start : piece.end]
        core = raw.strip()
        lead = raw[: len(raw) - len(raw.lstrip())]
        add_text(ms.text[pos : piece.start] + lead)
        mark.text = core
        lines[-1].append(mark)
        pos = piece.start + len(lead) + len(core)
    add_text(ms.text[pos:])
    if ms.text.endswith("\n") and not lines[-1]:
        lines.pop()
    counts = {s.key: sum(m.state == s.key for m in marks) for s in STATES}
    problems = [
        q.message for d in check.drifts for q in d.checks if q.status in ("not-found", "ambiguous", "unbound")
    ]
    problems += list(check.audit.problems) + list(check.audit.warnings) + list(check.registry_issues)
    by_claim: dict[str, list[Mark]] = {}
    for m in marks:
        for c in m.claims:
            by_claim.setdefault(c, []).append(m)
    return ManuscriptView(
        ms.path,
        ms.sha256,
        check.registry_path,
        lines,
        marks,
        counts,
        problems,
        by_claim,
        href,
        getattr(check, "chapter", ""),
    )
