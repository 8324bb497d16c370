"""What a claim's report row says, in words: values in the chapter's unit, the bar, the margin,
why a claim was not checked, the runner, one sentence per outcome. Pure functions over
:class:`claimcheck.results.ClaimEntry`, so every page and the summary say things one way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from claimcheck import outcomes as oc
from claimcheck.display import counted, format_value, number, with_unit
from claimcheck.display import is_number as _is_number
from claimcheck.interval import Interval
from claimcheck.manuscript import drift_words  # noqa: F401 - the pages' name for the one wording
from claimcheck.results import ClaimEntry, ClaimsDoc, Gpu, Runner
from claimcheck.runs import settings_size_profile
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
    """This runner's value in the chapter's unit, "" when nothing was measured."""
    return format_value(entry.measured, entry.unit)


def _parse(entry: ClaimEntry) -> Tolerance | None:
    try:
        return parse_tolerance(entry.tolerance or "printed")
    except ToleranceError:
        return None


def _stated(entry: ClaimEntry) -> str | None:
    stated = entry.stated
    return None if stated in (None, "") else str(stated)


def admitted(entry: ClaimEntry) -> tuple[float, float] | None:
    """The values the claim's tolerance admits, ``(lo, hi)`` in the claim's unit (``±inf`` for one-sided
    bars), or None when the tolerance or the stated value cannot be read (:meth:`Tolerance.region`)."""
    tol = _parse(entry)
    if tol is None:
        return None
    try:
        return tol.region(_stated(entry))
    except (TypeError, ValueError, AttributeError):
        return None


def bar_words(entry: ClaimEntry) -> str:
    """The claim's tolerance as a reader says it, with the values it admits (:meth:`Tolerance.describe`)."""
    tol = _parse(entry)
    text = entry.tolerance or "printed"
    if tol is None:
        return f"unreadable tolerance {text!r}"
    try:
        return tol.describe(_stated(entry), entry.unit)
    except (TypeError, ValueError, AttributeError):
        return f"{text} (the chapter prints no number to compare with)"


def margin(entry: ClaimEntry) -> Margin | None:
    """The :class:`~claimcheck.tolerance.Margin` of a measured entry (:meth:`Tolerance.margin`), or
    None (nothing measured, or no bar to measure against)."""
    m = entry.measured
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
    return tol.margin(value, _stated(entry), entry.unit)


def ci_straddles(entry: ClaimEntry) -> bool:
    """Whether a timing claim is undecided because its confidence interval (``details['ci']``)
    straddles its bar (outcome ``inconclusive``, or an interval that reaches across the bar)."""
    ci = entry.ci
    if ci is None:
        return False
    if entry.outcome == oc.INCONCLUSIVE:
        return True
    bounds = admitted(entry)
    return bounds is not None and any(ci.low < b < ci.high for b in bounds if math.isfinite(b))


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


def cause_of(entry: ClaimEntry, runner: dict | None = None) -> Cause:
    """Why a skipped claim was not checked, from its registry ``needs``, its runner binding and its reason."""
    reason = entry.reason
    needs = entry.needs or []
    weights = Runner.of(runner).weights
    if entry.runner_bound or reason.startswith("machine-bound"):
        return _CAUSE["machine-bound"]
    if "gpu" in needs or "CUDA" in reason:
        return _CAUSE["gpu"]
    if "weights" in needs and (weights is None or not weights.available or "weights" in reason):
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


def need_tags(entry: ClaimEntry) -> list[str]:
    """The filter keys of a claim's needs (``weights``, ``gpu``, ``timing``), in that order."""
    needs = entry.needs or []
    return [NEED_FILTERS[n][0] for n in NEED_FILTERS if n in needs]


def first_sentence(text: str, limit: int = 160) -> tuple[str, str]:
    """Split a reason into what a row shows (its first line; of a longer one than ``limit``, its first
    clause) and the rest ("" if none)."""
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


def reason_words(entry: ClaimEntry) -> str:
    """The one reason a row gives for its outcome ("" for a plain pass): for a failed claim what its
    check found, not the whole pytest message (the row shows its other lines)."""
    outcome = entry.outcome
    reason = entry.reason.strip()
    if outcome == oc.PASSED:
        return str(entry.details.get("caveat") or "")
    if outcome == oc.FAILED:
        verdict = entry.verdict_reason
        conditions = entry.details.get("failed_conditions")
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
def _gpu_words(gpu: Gpu | None) -> str:
    """The fingerprint's ``gpu`` in words: "GPU NVIDIA H200 139 GiB x2", or "no GPU"."""
    if gpu is None:
        return "no GPU"
    mem = f" {gpu.memory_bytes / 2**30:.0f} GiB" if gpu.memory_bytes is not None else ""
    count = f" x{gpu.count}" if gpu.count is not None and gpu.count > 1 else ""
    return f"GPU {gpu.name}{mem}{count}"


def runner_line(runner: dict) -> str:
    """The runner in one line: CPU (ISA), cores, RAM, GPU, libraries and threads."""
    r = Runner.of(runner)
    cpu = r.cpu or "unknown CPU"
    isa = ", ".join(str(x) for x in (r.machine, r.cpu_capability) if x)
    parts = [f"{cpu} ({isa})" if isa else cpu]
    if r.cores:
        parts.append(f"{r.cores} cores")
    if r.ram_bytes is not None:
        parts.append(f"{r.ram_bytes / 2**30:.0f} GiB RAM")
    parts.append(_gpu_words(r.gpu))
    pairs = ((r.python, "Python"), (r.torch, "torch"), (r.transformers, "transformers"))
    libs = [f"{name} {value}" for value, name in pairs if value]
    if r.torch_threads:
        libs.append(counted(r.torch_threads, "thread"))
    return ", ".join(parts) + ("; " + ", ".join(libs) if libs else "")


def runner_brief(runner: dict, settings: dict | None = None) -> list[str]:
    """The runner in two short lines for the matrix's column header: the hardware and torch, then
    the run (threads, size profile, named runner, weights, a busy machine)."""
    r = Runner.of(runner)
    cpu = str(r.cpu or "unknown CPU")
    if r.cpu_capability:
        cpu += f" ({r.cpu_capability})"
    machine = [cpu]
    if r.cores:
        machine.append(f"{r.cores} cores")
    machine.append(_gpu_words(r.gpu))
    if r.torch:
        machine.append(f"torch {r.torch}")
    run = []
    if _is_number(r.torch_threads):
        run.append(counted(r.torch_threads, "thread"))
    profile = settings_size_profile(settings)
    if profile:
        run.append(f"profile {profile}")
    named = r.runner_profile or (settings or {}).get("runner_profile")
    if named:
        run.append(f"runner {named}")
    if r.weights is not None:
        run.append("GPT-2 weights" if r.weights.available else "no weights")
    if r.busy:
        run.append("busy")  # timings from a busy machine compare badly
    return [", ".join(machine), ", ".join(run)] if run else [", ".join(machine)]


def deselected_words(group: dict, several_chapters: bool = False) -> tuple[str, str]:
    """One group of a run's deselected tests (``claims.json`` ``deselected[]``) in words, and the
    command that runs them: ``("5 tests deselected (C06, ...): ...", "pytest claims/ ...")``."""
    n = int(group.get("tests") or 0)
    keys = [str(k) for k in group.get("claims") or []]
    names = keys if several_chapters else [k.split(":", 1)[-1] for k in keys]
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    # the lane's tests are further tests of claims whose own tests ran; a -k/-m run's are the claims'
    of = "more tests of " if group.get("kind") == "lane" else ""
    text = f"{counted(n, 'test')} deselected" + (f" ({of}{shown})" if shown else "")
    return f"{text}: {group.get('why') or 'by this run'}.", str(group.get("run") or "")


def weights_line(runner: dict) -> str:
    """Which pretrained weights the run had, in one line."""
    r = Runner.of(runner)
    if r.portable_lm:
        return f"portable-LM lane on {', '.join(sorted(r.portable_lm))}: its own numbers, never compared with GPT-2's"
    w = r.weights
    if w is None or not w.available:
        return "none: the claims that need the pretrained GPT-2 weights are skipped"
    return f"{w.source} ({w.kind}), {w.file}, sha256 {w.sha256}"


def claim_name(entry: ClaimEntry, several_chapters: bool) -> str:
    """How a page names a claim: its id (``C18``), or its key (``ch15:C18``) where chapters mix."""
    return entry.key if several_chapters else entry.id


def _ids(entries, limit: int = 8, several: bool | None = None) -> str:
    """The claims' names, a few then "and N more"; keys (ch15:C18) when ``several`` chapters share the page."""
    if several is None:
        several = len({e.chapter for e in entries}) > 1
    ids = [claim_name(e, several) for e in entries]
    return ", ".join(ids) if len(ids) <= limit else ", ".join(ids[:limit]) + f" and {len(ids) - limit} more"


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _cause_words(skipped: list[ClaimEntry], runner: dict | None, ids) -> str:
    """Why skipped claims were not checked, causes counted: "3 need the pretrained weights (C30.model, ...)"."""
    groups: dict[str, list[ClaimEntry]] = {}
    for e in skipped:
        groups.setdefault(cause_of(e, runner).key, []).append(e)
    present = [(c, groups[c.key]) for c in CAUSES if c.key in groups]
    return "; ".join(f"{_n(len(es), c.one, c.many)} ({ids(es, 5)})" for c, es in present)


def _not_run_words(not_run: list[ClaimEntry], ids) -> str:
    """Why claims were not run, counted: interrupted, not selected, or without a test yet."""
    cut = [e for e in not_run if e.reason.startswith("interrupted")]
    rest = [e for e in not_run if e not in cut]
    unselected = [e for e in rest if e.selected is False or e.reason.startswith("not selected")]
    rest = [e for e in rest if e not in unselected]
    parts = []
    if cut:
        parts.append(f"{len(cut)} not reached before the run was interrupted ({ids(cut, 5)})")
    if unselected:
        parts.append(f"{len(unselected)} not selected in this run ({ids(unselected, 5)})")
    if rest:
        parts.append(f"{len(rest)} without a test yet ({ids(rest, 5)})")
    return "; ".join(parts)


def outcome_sentences(entries: list[ClaimEntry], runner: dict | None = None) -> list[str]:
    """One sentence per outcome of a run, the way an editor asks: which hold, which do not, why the
    rest were not checked (causes counted, e.g. "3 need the pretrained weights (C30.model, C31, C37)")."""
    several = len({e.chapter for e in entries}) > 1

    def ids(es, limit: int = 8) -> str:
        return _ids(es, limit, several)

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
    drifted = [e for e in entries if e.drifted]
    if drifted:
        out.append(
            f"{_n(len(drifted), 'claim drifts', 'claims drift')} from the manuscript (the text prints "
            f"another number than the registry; the verdicts above are the registry's): {ids(drifted)}."
        )
    carried = [e for e in entries if e.carried is not None]
    missed = [e for e in carried if e.carried is not None and e.carried.why]
    unselected_rows = [e for e in carried if e not in missed]
    for rows, why in (
        (unselected_rows, "this run did not select them"),
        (missed, "this run was interrupted before it reached them"),
    ):
        if rows:
            times = sorted({str(e.carried.from_ or "?") for e in rows if e.carried is not None})
            out.append(
                f"{_n(len(rows), 'row comes', 'rows come')} from an earlier run ({', '.join(times)}): {why}."
            )
    return out


def interrupted_words(doc: ClaimsDoc) -> str:
    """What an interrupted run did, in one line ("" for a run that ended): by what, how many claims it
    decided, and those it did not reach (showing an earlier run's rows, or not run)."""
    i = doc.interrupted
    if i is None:
        return ""
    by_key = doc.by_key()
    several = len({e.chapter for e in doc.claims}) > 1
    missed = [by_key[k] for k in i.not_reached or [] if k in by_key]
    kept = [e for e in missed if e.carried is not None]
    bare = [e for e in missed if e.carried is None]
    text = f"interrupted ({i.by}): {_n(len(i.decided), 'claim', 'claims')} decided before the end"
    if i.not_reached is None:  # a file written before the field
        return text + "; the report keeps earlier rows for the others or says 'not-run: interrupted'"
    if not missed:
        return text + "."
    text += f"; {len(missed)} not reached ({_ids(missed, several=several)})"
    parts = []
    if kept:
        times = sorted({str(e.carried.from_ or "?") for e in kept if e.carried is not None})
        parts.append(
            f"{_ids(kept, 5, several)} {'shows' if len(kept) == 1 else 'show'} the "
            f"{'row' if len(kept) == 1 else 'rows'} of the run of {', '.join(times)}, marked as carried, "
            "not decided by this run"
        )
    if bare:
        parts.append(f"{_ids(bare, 5, several)} {'is' if len(bare) == 1 else 'are'} not run")
    return f"{text}: {'; '.join(parts)}."
