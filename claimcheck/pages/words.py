"""What a claim's report row says, in words (values, bar, margin, causes, runner, one sentence per
outcome): pure functions over :class:`claimcheck.results.ClaimEntry`, shared by every page."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import partial

from claimcheck import outcomes as oc
from claimcheck.display import counted, format_value, is_number, number, with_unit
from claimcheck.fingerprint import HAS_WEIGHTS, runner_brief, runner_line, table  # noqa: F401 - the runner's words
from claimcheck.interval import Interval
from claimcheck.manuscript import drift_words  # noqa: F401 - the pages' name for the one wording
from claimcheck.results import ClaimEntry, ClaimsDoc
from claimcheck.tolerance import Margin, Tolerance, ToleranceError, parse_tolerance


def quoted(locator: str) -> str:
    """The chapter's words in corner brackets, 「...」 (not twice), for a claim stated without a number."""
    return locator if locator.startswith("「") and locator.endswith("」") else f"「{locator}」"


def anchor(key: str) -> str:
    """The HTML id of a claim's row on every page: ``ch15:C18`` -> ``claim-ch15-C18`` (no ``:`` for CSS)."""
    return "claim-" + str(key).replace(":", "-")


def chapter_value(entry: ClaimEntry) -> str:
    """The chapter's value as printed, with its unit; "" when the chapter states the claim without a number."""
    return with_unit(entry.stated, entry.unit) if entry.stated else ""


def measured_value(entry: ClaimEntry) -> str:
    """This runner's value in the chapter's unit, "" when nothing was measured; in full digits when the
    claim's tolerance is ``exact`` (:func:`~claimcheck.display.format_value`)."""
    return format_value(entry.measured, entry.unit, exact=(entry.tolerance or "").strip() == "exact")


def value_words(entry: ClaimEntry) -> list[str]:
    """The figures a one-line account of a claim names, where it has them: ``["chapter 36 KiB", "here 38 KiB"]``;
    no "here" for a formula, whose value is the chapter's arithmetic, not a measurement."""
    pairs = (("chapter", chapter_value(entry)), ("here", "" if entry.formula else measured_value(entry)))
    return [f"{name} {value}" for name, value in pairs if value]


def tolerance_of(entry: ClaimEntry) -> Tolerance | None:
    """The row's tolerance (``printed`` where it names none), or None where its text does not parse."""
    try:
        return parse_tolerance(entry.tolerance or "printed")
    except ToleranceError:
        return None


def bar_words(entry: ClaimEntry) -> str:
    """The claim's tolerance in words, with the values it admits (:meth:`Tolerance.describe`)."""
    tol = tolerance_of(entry)
    text = entry.tolerance or "printed"
    if tol is None:
        return f"unreadable tolerance {text!r}"
    try:
        return tol.describe(entry.stated or None, entry.unit)
    except (TypeError, ValueError, AttributeError):
        return f"{text} (the chapter prints no number to compare with)"


#: the margin of a timing whose confidence interval reaches across its bar: no distance to say
STRADDLES = Margin("its confidence interval straddles the bar", False, 0.0)


def margin(entry: ClaimEntry) -> Margin | None:
    """The :class:`~claimcheck.tolerance.Margin` of a measured entry, or None (nothing measured, no bar);
    :data:`STRADDLES` for a timing whose interval reaches across its bar (:func:`ci_straddles`), whose
    point value's distance from the bar would read as a verdict."""
    if ci_straddles(entry):
        return STRADDLES
    m, tol = entry.measured, tolerance_of(entry)
    if isinstance(m, list) and len(m) == 2 and all(is_number(v) for v in m) and m[0] <= m[1]:
        value: float | Interval = Interval(float(m[0]), float(m[1]))
    elif is_number(m):
        value = float(m)
    else:
        return None
    return tol.margin(value, entry.stated or None, entry.unit) if tol is not None else None


def ci_straddles(entry: ClaimEntry) -> bool:
    """Whether a timing claim is ``inconclusive``, or its confidence interval reaches across its bar."""
    ci, tol = entry.ci, tolerance_of(entry)
    if ci is None or entry.outcome == oc.INCONCLUSIVE:
        return ci is not None
    try:
        bounds = tol.region(entry.stated or None) if tol is not None else ()
    except (TypeError, ValueError, AttributeError):
        return False
    return any(ci.low < b < ci.high for b in bounds if math.isfinite(b))


def ci_words(entry: ClaimEntry) -> str:
    """A timing claim's confidence interval in its unit ("95% CI [21.3×, 24.8×], 12 rounds"), or ""."""
    ci, unit = entry.ci, entry.unit
    if ci is None:
        return ""
    level = ci.level
    level_text = f"{number(level * 100 if level <= 1 else level)}% " if level is not None else ""
    rounds = f", {ci.rounds} rounds" if ci.rounds is not None else ""
    return f"{level_text}CI [{with_unit(number(ci.low), unit)}, {with_unit(number(ci.high), unit)}]{rounds}"


# --- why a claim was not checked ------------------------------------------------------------------
#: why claims cannot be checked here, in the order the summary lists them: key -> (one claim, many)
CAUSES = {
    "weights": ("needs the pretrained weights", "need the pretrained weights"),
    "gpu": ("needs a GPU", "need a GPU"),
    "machine-bound": ("is a timing taken on another runner", "are timings taken on another runner"),
    "external": ("needs data from outside the chapter", "need data from outside the chapter"),
    "listing": ("needs the chapter's listing", "need the chapter's listing"),
    "other": ("is skipped for another reason", "are skipped for other reasons"),
}


def known_cause(cause: str | None) -> str | None:
    """``cause`` itself when it is None or a key of :data:`CAUSES`. Raises ValueError naming the known
    causes: a typo would otherwise be counted as "other"."""
    if cause is not None and cause not in CAUSES:
        raise ValueError(f"unknown cause {cause!r} of a skip; a skip's cause is one of {', '.join(CAUSES)}")
    return cause


def cause_of(entry: ClaimEntry, runner: dict | None = None) -> str:
    """Why a skipped claim was not checked (a key of :data:`CAUSES`): the ``cause`` its skip gave,
    else from its registry ``needs`` and runner binding."""
    if entry.cause in CAUSES:
        return entry.cause
    needs = entry.needs or []
    weights = table(runner).get("weights")
    if entry.runner_bound:
        return "machine-bound"
    if "gpu" in needs:
        return "gpu"
    if "weights" in needs and weights != HAS_WEIGHTS:
        return "weights"
    return "external" if "ext" in needs else "other"


#: the needs a reader can filter on: registry `needs` -> filter key and label
NEED_FILTERS = {
    "weights": ("weights", "the weights"),
    "gpu": ("gpu", "a GPU"),
    "time": ("timing", "a timing"),
}


def need_tags(entry: ClaimEntry) -> list[str]:
    """The filter keys of a claim's needs (``weights``, ``gpu``, ``timing``), in that order."""
    needs = entry.needs or []
    return [NEED_FILTERS[n][0] for n in NEED_FILTERS if n in needs]


def first_sentence(text: str, limit: int = 160) -> tuple[str, str]:
    """``(shown, rest)`` of a reason: its first line (of one over ``limit``, its first clause), the rest."""
    line, _, rest = (text or "").strip().partition("\n")
    if len(line) <= limit:
        return line, rest.strip()
    marks = [i for i in (line.find(mark, 40) for mark in ("; ", ". ", ": ")) if 0 < i < limit]
    cut = min(marks, default=line.rfind(" ", 0, limit))  # the first clause, else the last word that fits
    if cut > 0:
        head, tail = line[: cut + 1].rstrip(" ;:"), line[cut + 1 :].strip()
        return head, (tail + ("\n" + rest if rest else "")).strip()
    return line, rest.strip()


def reason_words(entry: ClaimEntry) -> str:
    """The one reason a row gives for its outcome ("" for a plain pass; for a failure what its check
    found: its verdict's reason, else its failed conditions, else the first line of pytest's)."""
    if entry.outcome == oc.PASSED:
        return str(entry.details.get("caveat") or "")
    if entry.outcome != oc.FAILED:
        return entry.reason.strip()
    conditions = entry.details.get("failed_conditions") or []
    if entry.verdict_reason or conditions:
        return str(entry.verdict_reason or "; ".join(map(str, conditions)))
    return entry.reason.strip().partition("\n")[0].strip()


# --- the runner and the whole run -----------------------------------------------------------------
def deselected_words(group: dict, several_chapters: bool = False) -> tuple[str, str]:
    """``(words, command)`` of one group of ``deselected[]``: ``("5 tests deselected (C06, ...): ...", "pytest ...")``."""
    n = int(group.get("tests") or 0)
    keys = [str(k) for k in group.get("claims") or []]
    names = keys if several_chapters else [k.split(":", 1)[-1] for k in keys]
    shown = listed(names)
    # the lane's tests are further tests of claims whose own tests ran; a -k/-m run's are the claims'
    of = "more tests of " if group.get("kind") == "lane" else ""
    text = f"{counted(n, 'test')} deselected" + (f" ({of}{shown})" if shown else "")
    return f"{text}: {group.get('why') or 'by this run'}.", str(group.get("run") or "")


def weights_line(runner: dict) -> str:
    """Which pretrained weights the run had, in one line."""
    r = runner or {}
    if r.get("portable_lm"):
        return f"portable-LM lane on {', '.join(sorted(r['portable_lm']))}: its own numbers, never compared with GPT-2's"
    if table(r).get("weights") != HAS_WEIGHTS:
        return "none: the claims that need the pretrained GPT-2 weights are skipped"
    w = r["weights"]
    return f"{w.get('source')} ({w.get('kind')}), {w.get('file', '?')}, sha256 {w.get('sha256', '?')}"


def claim_name(entry: ClaimEntry, several_chapters: bool) -> str:
    """How a page names a claim: its id (``C18``), or its key (``ch15:C18``) where chapters mix."""
    return entry.key if several_chapters else entry.id


def listed(names: list[str], limit: int = 8) -> str:
    """``names`` joined by commas, the first ``limit`` of them and how many more: ``"C01, C02 and 3 more"``."""
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _ids(entries: Iterable[ClaimEntry], limit: int = 8, several: bool = False) -> str:
    return listed([claim_name(e, several) for e in entries], limit)


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _cause_words(skipped: list[ClaimEntry], runner: dict | None, ids: Callable[..., str]) -> str:
    groups: dict[str, list[ClaimEntry]] = {}
    for e in skipped:
        groups.setdefault(cause_of(e, runner), []).append(e)
    present = [(CAUSES[c], groups[c]) for c in CAUSES if c in groups]
    return "; ".join(f"{_n(len(es), *said)} ({ids(es, 5)})" for said, es in present)


def _held_forms(
    held: list[ClaimEntry], form_of: Callable[[ClaimEntry], str], ids: Callable[..., str]
) -> list[str]:
    """``["Of these, 22 reproduce the chapter's figure here; 6 hold by the chapter's arithmetic (C04,
    ...)."]``, or [] where every claim that holds reproduced its figure."""
    by: dict[str, list[ClaimEntry]] = {}
    for e in held:
        by.setdefault(form_of(e), []).append(e)
    others = [
        f"{_n(len(by[state]), *said)} ({ids(by[state], 5)})" for state, said in HELD_AS.items() if state in by
    ]
    if not others:
        return []
    same = len(held) - sum(len(es) for state, es in by.items() if state in HELD_AS)
    return [
        f"Of these, {_n(same, 'reproduces', 'reproduce')} the chapter's figure here; {'; '.join(others)}."
    ]


def _not_run_words(not_run: list[ClaimEntry], ids: Callable[..., str]) -> str:
    cut = [e for e in not_run if e.reason.startswith("interrupted")]
    rest = [e for e in not_run if e not in cut]
    unselected = [e for e in rest if e.selected is False or e.reason.startswith("not selected")]
    rest = [e for e in rest if e not in unselected]
    groups = (
        (cut, "not reached before the run was interrupted"),
        (unselected, "not selected in this run"),
        (rest, "without a test yet"),
    )
    return "; ".join(f"{len(es)} {what} ({ids(es, 5)})" for es, what in groups if es)


#: how a claim that holds here holds where this runner did not reproduce its figure, by the state
#: :func:`claimcheck.pages.manuscript_view.figure_state` gives it ("held": it reproduced the figure)
HELD_AS = {
    "arithmetic": ("holds by the chapter's arithmetic", "hold by the chapter's arithmetic"),
    "bar": ("holds by its bar, not the figure", "hold by their bar, not the figure"),
    "quoted": ("holds as a quote of another chapter", "hold as quotes of another chapter"),
    "unmeasured": ("holds without a measured value", "hold without a measured value"),
}


def outcome_sentences(
    entries: list[ClaimEntry], runner: dict | None = None, form_of: Callable[[ClaimEntry], str] | None = None
) -> list[str]:
    """One sentence per outcome of a run: which hold, which do not, why the rest were not checked
    (causes counted: "3 need the pretrained weights (C30.model, C31, C37)"), then drift and carried rows.
    ``form_of(entry)``: the state of the figure of a claim that holds (a key of :data:`HELD_AS`, or
    "held" where this runner reproduced it); given, the sentence of those that hold is followed by one
    saying how many reproduced the chapter's figure and how the others hold."""
    ids = partial(_ids, several=len({e.chapter for e in entries}) > 1)
    by: dict[str | None, list[ClaimEntry]] = {}
    for e in entries:
        by.setdefault(e.outcome, []).append(e)
    out = []
    for word in oc.WORDS:  # each outcome's sentence (oc.Word.sentence), in the order reports list them
        if word.word in oc.HELD[1:]:
            continue  # the other ways of holding are said within the first one's sentence
        es = [e for o in oc.HELD for e in by.get(o, [])] if word.word == oc.HELD[0] else by.get(word.word, [])
        if not es:
            continue
        fields = {"ids": ids(es)}
        if word.word == oc.HELD[0]:
            fields["ties"] = "".join(
                f" ({oc.WORD[o].sentence(len(by[o]), ids=ids(by[o]))})" for o in oc.HELD[1:] if by.get(o)
            )
        elif word.word == oc.SKIPPED:
            fields["causes"] = _cause_words(es, runner, ids)
        elif word.word == oc.NOT_RUN:
            fields["parts"] = _not_run_words(es, ids)
        out.append(word.sentence(len(es), **fields))
        if word.word == oc.HELD[0] and form_of is not None:
            out += _held_forms(es, form_of, ids)
    drifted = [e for e in entries if e.drifted]
    if drifted:
        out.append(
            f"{_n(len(drifted), 'claim drifts', 'claims drift')} from the manuscript (the text prints "
            f"another number than the registry; the verdicts above are the registry's): {ids(drifted)}."
        )
    carried = [e for e in entries if e.carried is not None]
    missed = [e for e in carried if e.carried is not None and e.carried.why]
    for rows, why in (
        ([e for e in carried if e not in missed], "this run did not select them"),
        (missed, "this run was interrupted before it reached them"),
    ):
        if rows:
            out.append(
                f"{_n(len(rows), 'row comes', 'rows come')} from an earlier run ({carried_times(rows)}): {why}."
            )
    return out


def carried_times(rows: Iterable[ClaimEntry]) -> str:
    """When the carried ``rows`` were measured (their ``carried.from``), each time once: the one time
    every page and line says for them."""
    return ", ".join(sorted({str(e.carried.from_ or "?") for e in rows if e.carried is not None}))


def interrupted_words(doc: ClaimsDoc) -> str:
    """What an interrupted run did and did not reach, in one line ("" for a run that ended)."""
    i = doc.interrupted
    if i is None:
        return ""
    by_key = doc.by_key()
    ids = partial(_ids, several=len({e.chapter for e in doc.claims}) > 1)
    missed = [by_key[k] for k in i.not_reached or [] if k in by_key]
    kept = [e for e in missed if e.carried is not None]
    bare = [e for e in missed if e.carried is None]
    text = f"interrupted ({i.by}): {_n(len(i.decided), 'claim', 'claims')} decided before the end"
    if i.not_reached is None:  # a file written before the field
        return text + "; the report keeps earlier rows for the others or says 'not-run: interrupted'"
    if not missed:
        return text + "."
    text += f"; {len(missed)} not reached ({ids(missed)})"
    parts = []
    if kept:
        parts.append(
            f"{ids(kept, 5)} {'shows' if len(kept) == 1 else 'show'} the "
            f"{'row' if len(kept) == 1 else 'rows'} of the run of {carried_times(kept)}, marked as carried, "
            "not decided by this run"
        )
    if bare:
        parts.append(f"{ids(bare, 5)} {'is' if len(bare) == 1 else 'are'} not run")
    return f"{text}: {'; '.join(parts)}."
