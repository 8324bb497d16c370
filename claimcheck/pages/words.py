"""What a claim's report row says, in words: values in the chapter's unit, the bar, the margin,
why a claim was not checked, the runner in one line, one sentence per outcome.

Pure functions over the entries of ``claims.json`` (:func:`claimcheck.report.build_json`): the
claims page, the matrix page and ``claimcheck summary`` all say things the same way because they
all say them through this module. Standard library and :mod:`claimcheck.tolerance` only (no torch,
no pint).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from claimcheck import outcomes as oc
from claimcheck.display import GLUED_UNITS as _GLUED_UNITS  # noqa: F401 - the names pages use
from claimcheck.display import format_value, number, with_unit  # noqa: F401
from claimcheck.display import is_number as _is_number
from claimcheck.interval import Interval
from claimcheck.manuscript import drift_words as manuscript_drift_words
from claimcheck.tolerance import Margin, Tolerance, ToleranceError, parse_tolerance


def quoted(locator: str) -> str:
    """The chapter's words in corner brackets, 「...」, as the pages show a claim stated without a
    number; a locator that already quotes the chapter's own 「...」 is not bracketed twice."""
    return locator if locator.startswith("「") and locator.endswith("」") else f"「{locator}」"


def anchor(key: str) -> str:
    """The HTML id of a claim's row: ``ch15:C18`` -> ``claim-ch15-C18`` (no ``:``, which CSS
    selectors would need escaped), the same on every page that links to it."""
    return "claim-" + str(key).replace(":", "-")


def chapter_value(entry: dict) -> str:
    """The chapter's value as printed, with its unit; "" when the chapter states the claim without a number."""
    stated = entry.get("stated")
    return with_unit(str(stated), entry.get("unit")) if stated not in (None, "") else ""


def measured_value(entry: dict) -> str:
    """This runner's value in the chapter's unit ("" when nothing was measured): ``measured`` is a
    number, ``[lo, hi]`` (the chapter's own arithmetic), a bool, or a string such as ``"inf"``
    (:func:`claimcheck.display.format_value`)."""
    return format_value(entry.get("measured"), entry.get("unit"))


def drift_words(entry: dict) -> list[str]:
    """What the manuscript says against the registry, one line per failing quote of the claim's
    drift check (``details.drift``), worded by :func:`claimcheck.manuscript.drift_words`; [] when
    the check held or did not run. The one wording of drift for the claims page, the summary and
    the annotations."""
    drift = (entry.get("details") or {}).get("drift")
    return manuscript_drift_words(drift, entry.get("unit"), measured_value(entry))


def _parse(entry: dict) -> Tolerance | None:
    try:
        return parse_tolerance(entry.get("tolerance") or "printed")
    except ToleranceError:
        return None


def _stated(entry: dict) -> str | None:
    stated = entry.get("stated")
    return None if stated in (None, "") else str(stated)


def admitted(entry: dict) -> tuple[float, float] | None:
    """The values the claim's tolerance admits, ``(lo, hi)`` in the claim's unit (``±inf`` for one-sided
    bars), or None when the tolerance or the stated value cannot be read (:meth:`Tolerance.region`)."""
    tol = _parse(entry)
    if tol is None:
        return None
    try:
        return tol.region(_stated(entry))
    except (TypeError, ValueError, AttributeError):
        return None


def bar_words(entry: dict) -> str:
    """The claim's tolerance as a reader says it, with the values it admits (:meth:`Tolerance.describe`).

    ``printed`` on 99.16 -> "within half a unit of the last digit: [99.155, 99.165]"; ``>=10`` on a
    ratio -> "at least 10×"; ``rel:5%`` on 2 -> "within 5% of 2: [1.9, 2.1] FLOP/param".
    """
    tol = _parse(entry)
    text = entry.get("tolerance") or "printed"
    if tol is None:
        return f"unreadable tolerance {text!r}"
    try:
        return tol.describe(_stated(entry), entry.get("unit"))
    except (TypeError, ValueError, AttributeError):
        return f"{text} (the chapter prints no number to compare with)"


def margin(entry: dict) -> Margin | None:
    """The :class:`~claimcheck.tolerance.Margin` of a measured entry (:meth:`Tolerance.margin`), or
    None (nothing measured, or no bar to measure against)."""
    m = entry.get("measured")
    tol = _parse(entry)
    if tol is None or m is None or isinstance(m, (bool, str)):
        return None
    if isinstance(m, list):
        if len(m) != 2 or not all(_is_number(v) for v in m) or not m[0] <= m[1]:
            return None
        value: float | Interval = Interval(float(m[0]), float(m[1]))
    elif _is_number(m):
        value = float(m)
    else:
        return None
    return tol.margin(value, _stated(entry), entry.get("unit"))


def ci_straddles(entry: dict) -> bool:
    """Whether a timing claim is undecided because its confidence interval (``details['ci']``)
    straddles its bar (outcome ``inconclusive``, or an interval that reaches across the bar)."""
    ci = (entry.get("details") or {}).get("ci")
    if not isinstance(ci, dict) or not _is_number(ci.get("low")) or not _is_number(ci.get("high")):
        return False
    if entry.get("outcome") == oc.INCONCLUSIVE:
        return True
    bounds = admitted(entry)
    return bounds is not None and any(ci["low"] < b < ci["high"] for b in bounds if math.isfinite(b))


def ci_words(entry: dict) -> str:
    """A timing claim's confidence interval (``details['ci']``, in the claim's unit), e.g.
    "95% CI [21.3×, 24.8×], 12 rounds"; "" when the claim has none. (Its bar is the row's.)"""
    ci = (entry.get("details") or {}).get("ci")
    if not isinstance(ci, dict) or not _is_number(ci.get("low")) or not _is_number(ci.get("high")):
        return ""
    unit = entry.get("unit")
    level = ci.get("level")
    level_text = (
        f"{number(level * 100 if _is_number(level) and level <= 1 else level)}% " if _is_number(level) else ""
    )
    rounds = f", {ci['rounds']} rounds" if _is_number(ci.get("rounds")) else ""
    return f"{level_text}CI [{with_unit(number(ci['low']), unit)}, {with_unit(number(ci['high']), unit)}]{rounds}"


# --- why a claim was not checked ------------------------------------------------------------------
@dataclass(frozen=True)
class Cause:
    """A reason a claim cannot be checked on a runner: its key, the words for one and for several."""

    key: str
    one: str
    many: str


#: why claims cannot be checked here, in the order the summary lists them
CAUSES = (
    Cause("weights", "needs the pretrained weights", "need the pretrained weights"),
    Cause("gpu", "needs a GPU", "need a GPU"),
    Cause("machine-bound", "is a timing taken on another runner", "are timings taken on another runner"),
    Cause("external", "needs data from outside the chapter", "need data from outside the chapter"),
    Cause("listing", "needs the chapter's listing", "need the chapter's listing"),
    Cause("other", "is skipped for another reason", "are skipped for other reasons"),
)
_CAUSE = {c.key: c for c in CAUSES}


def cause_of(entry: dict, runner: dict | None = None) -> Cause:
    """Why a skipped claim was not checked, from its registry ``needs``, its runner binding and its reason."""
    reason = str(entry.get("reason") or "")
    needs = entry.get("needs") or []
    weights = (runner or {}).get("weights") or {}
    if entry.get("runner_bound") or reason.startswith("machine-bound"):
        return _CAUSE["machine-bound"]
    if "gpu" in needs or "CUDA" in reason:
        return _CAUSE["gpu"]
    if "weights" in needs and (not weights.get("available") or "weights" in reason):
        return _CAUSE["weights"]
    if "--claims-listing" in reason:
        return _CAUSE["listing"]
    if "ext" in needs or reason.startswith("external data"):
        return _CAUSE["external"]
    return _CAUSE["other"]


#: the needs a reader can filter on: registry `needs` -> filter key and label
NEED_FILTERS = {
    "weights": ("weights", "the weights"),
    "gpu": ("gpu", "a GPU"),
    "time": ("timing", "a timing"),
}


def need_tags(entry: dict) -> list[str]:
    """The filter keys of a claim's needs (``weights``, ``gpu``, ``timing``), in that order."""
    needs = entry.get("needs") or []
    return [NEED_FILTERS[n][0] for n in NEED_FILTERS if n in needs]


def first_sentence(text: str, limit: int = 160) -> tuple[str, str]:
    """Split a reason into what a row shows and the rest ("" if none): its first line, and of a first
    line longer than ``limit`` characters only its first clause (up to ". ", "; " or ": ")."""
    text = (text or "").strip()
    if not text:
        return "", ""
    line, _, rest = text.partition("\n")
    if len(line) <= limit:
        return line, rest.strip()
    cut = -1
    for mark in ("; ", ". ", ": "):
        i = line.find(mark, 40)
        if 0 < i < limit and (cut < 0 or i < cut):
            cut = i
    if cut < 0:
        cut = line.rfind(" ", 0, limit)
    if cut > 0:
        head, tail = line[: cut + 1].rstrip(" ;:"), line[cut + 1 :].strip()
        return head, (tail + ("\n" + rest if rest else "")).strip()
    return line, rest.strip()


def reason_words(entry: dict) -> str:
    """The one reason a row gives for its outcome, in plain words ("" for a plain pass).

    A failed claim says what its check found (the tolerance's words, or the failed condition), not
    the whole pytest message, whose chapter/measured/tolerance lines the row already shows.
    """
    outcome = entry.get("outcome")
    reason = str(entry.get("reason") or "").strip()
    if outcome == oc.PASSED:
        return str((entry.get("details") or {}).get("caveat") or "")
    if outcome == oc.FAILED:
        verdict = entry.get("verdict_reason")
        conditions = (entry.get("details") or {}).get("failed_conditions")
        if verdict:
            return str(verdict)
        if conditions:
            return "; ".join(map(str, conditions))
        lines = [ln.strip() for ln in reason.splitlines()]
        for ln in lines:
            if ln.startswith("tolerance:") and "->" in ln:
                return ln.split("->", 1)[1].strip()
        return lines[0] if lines else ""
    return reason


# --- the runner and the whole run -----------------------------------------------------------------
def _gpu_words(gpu) -> str:
    """The fingerprint's ``gpu`` in words: "GPU NVIDIA H200 139 GiB x2", or "no GPU"."""
    if not (isinstance(gpu, dict) and gpu.get("name")):
        return "no GPU"
    mem = f" {gpu['memory_bytes'] / 2**30:.0f} GiB" if _is_number(gpu.get("memory_bytes")) else ""
    count = f" x{gpu['count']}" if _is_number(gpu.get("count")) and gpu["count"] > 1 else ""
    return f"GPU {gpu['name']}{mem}{count}"


def runner_line(runner: dict) -> str:
    """The runner in one line: CPU (ISA), cores, RAM, GPU, libraries and threads."""
    r = runner or {}
    cpu = r.get("cpu") or "unknown CPU"
    isa = ", ".join(str(x) for x in (r.get("machine"), r.get("cpu_capability")) if x)
    parts = [f"{cpu} ({isa})" if isa else cpu]
    if r.get("cores"):
        parts.append(f"{r['cores']} cores")
    if _is_number(r.get("ram_bytes")):
        parts.append(f"{r['ram_bytes'] / 2**30:.0f} GiB RAM")
    parts.append(_gpu_words(r.get("gpu")))
    libs = [
        f"{name} {r[key]}"
        for key, name in (("python", "Python"), ("torch", "torch"), ("transformers", "transformers"))
        if r.get(key)
    ]
    if r.get("torch_threads"):
        libs.append(f"{r['torch_threads']} threads")
    return ", ".join(parts) + ("; " + ", ".join(libs) if libs else "")


def runner_brief(runner: dict, settings: dict | None = None) -> list[str]:
    """The runner in two short lines for the matrix's column header: what decides whether its
    numbers compare with another runner's. First the hardware and torch (CPU and its
    instruction-set level, cores, GPU, torch's build), then the run (threads, size profile, named
    runner, weights, a busy machine). The whole fingerprint stays behind the header's disclosure.
    """
    from claimcheck.runs import settings_size_profile

    r = runner or {}
    cpu = str(r.get("cpu") or "unknown CPU")
    if r.get("cpu_capability"):
        cpu += f" ({r['cpu_capability']})"
    machine = [cpu]
    if r.get("cores"):
        machine.append(f"{r['cores']} cores")
    machine.append(_gpu_words(r.get("gpu")))
    if r.get("torch"):
        machine.append(f"torch {r['torch']}")
    run = []
    if _is_number(r.get("torch_threads")):
        run.append(f"{r['torch_threads']} thread{'' if r['torch_threads'] == 1 else 's'}")
    profile = settings_size_profile(settings)
    if profile:
        run.append(f"profile {profile}")
    named = r.get("runner_profile") or (settings or {}).get("runner_profile")
    if named:
        run.append(f"runner {named}")
    weights = r.get("weights")
    if isinstance(weights, dict):
        run.append("GPT-2 weights" if weights.get("available") else "no weights")
    load = r.get("load")
    if isinstance(load, dict) and load.get("busy"):
        run.append("busy")  # timings from a busy machine compare badly
    return [", ".join(machine), ", ".join(run)] if run else [", ".join(machine)]


def deselected_words(group: dict, several_chapters: bool = False) -> tuple[str, str]:
    """One group of a run's deselected tests (``claims.json`` ``deselected[]``) in words, and the
    command that runs them: ``("5 tests deselected (C06, C14, ...): the portable-LM lane's, which
    runs only when asked for ...", "pytest claims/ --claims-lm smollm2")``. pytest's own "5
    deselected" says neither which nor why."""
    n = int(group.get("tests") or 0)
    keys = [str(k) for k in group.get("claims") or []]
    names = keys if several_chapters else [k.split(":", 1)[-1] for k in keys]
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    # the lane's tests are further tests of claims whose own tests ran; a -k/-m run's are the claims'
    of = "more tests of " if group.get("kind") == "lane" else ""
    text = f"{n} test{'' if n == 1 else 's'} deselected" + (f" ({of}{shown})" if shown else "")
    return f"{text}: {group.get('why') or 'by this run'}.", str(group.get("run") or "")


def weights_line(runner: dict) -> str:
    """Which pretrained weights the run had, in one line."""
    w = (runner or {}).get("weights") or {}
    lane = (runner or {}).get("portable_lm")
    if lane:
        return f"portable-LM lane on {', '.join(sorted(lane))}: its own numbers, never compared with GPT-2's"
    if not w.get("available"):
        return "none: the claims that need the pretrained GPT-2 weights are skipped"
    return f"{w.get('source')} ({w.get('kind')}), {w.get('file', '?')}, sha256 {w.get('sha256', '?')}"


def claim_name(entry: dict, several_chapters: bool) -> str:
    """How a page names a claim: its id (``C18``), or its key (``ch15:C18``) where chapters mix."""
    from claimcheck.keys import entry_key

    return (entry_key(entry) or str(entry.get("id"))) if several_chapters else str(entry.get("id"))


def _ids(entries, limit: int = 8, several: bool | None = None) -> str:
    """The claims' names, a few then "and N more": keys (ch15:C18) when ``several`` chapters share
    the page (default: when these entries span several)."""
    if several is None:
        several = len({e.get("chapter") for e in entries}) > 1
    ids = [claim_name(e, several) for e in entries]
    return ", ".join(ids) if len(ids) <= limit else ", ".join(ids[:limit]) + f" and {len(ids) - limit} more"


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _cause_words(skipped: list[dict], runner: dict | None, ids) -> str:
    """Why skipped claims were not checked, causes counted: "3 need the pretrained weights (C30.model, ...)"."""
    groups: dict[str, list[dict]] = {}
    for e in skipped:
        groups.setdefault(cause_of(e, runner).key, []).append(e)
    return "; ".join(
        f"{len(groups[c.key])} {c.one if len(groups[c.key]) == 1 else c.many} ({ids(groups[c.key], 5)})"
        for c in CAUSES
        if c.key in groups
    )


def _not_run_words(not_run: list[dict], ids) -> str:
    """Why claims were not run: not selected in this run, or without a test yet, counted."""
    unselected = [
        e
        for e in not_run
        if e.get("selected") is False or str(e.get("reason", "")).startswith("not selected")
    ]
    rest = [e for e in not_run if e not in unselected]
    parts = []
    if unselected:
        parts.append(f"{len(unselected)} not selected in this run ({ids(unselected, 5)})")
    if rest:
        parts.append(f"{len(rest)} without a test yet ({ids(rest, 5)})")
    return "; ".join(parts)


def outcome_sentences(entries: list[dict], runner: dict | None = None) -> list[str]:
    """One sentence per outcome of a run, the way an editor asks: which hold, which do not, why the
    rest were not checked (causes counted, e.g. "3 need the pretrained weights (C30.model, C31, C37)")."""
    several = len({e.get("chapter") for e in entries}) > 1

    def ids(es, limit: int = 8) -> str:
        return _ids(es, limit, several)

    by: dict[str | None, list[dict]] = {}
    for e in entries:
        by.setdefault(e.get("outcome"), []).append(e)
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
    drifted = [e for e in entries if e.get("drifted")]
    if drifted:
        out.append(
            f"{_n(len(drifted), 'claim drifts', 'claims drift')} from the manuscript (the text prints "
            f"another number than the registry; the verdicts above are the registry's): {ids(drifted)}."
        )
    carried = [e for e in entries if e.get("carried")]
    if carried:
        times = sorted({str(e["carried"].get("from") or "?") for e in carried})
        out.append(
            f"{_n(len(carried), 'row comes', 'rows come')} from an earlier run ({', '.join(times)}): "
            "this run did not select them."
        )
    return out
