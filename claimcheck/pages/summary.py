"""CI surfaces: :func:`markdown` for ``$GITHUB_STEP_SUMMARY`` (a ``claims.json`` or a matrix), and
:func:`annotations`, GitHub workflow commands at the place to fix."""

# No `from __future__ import annotations`: it would bind this module's name `annotations` (a function).
import os
from collections.abc import Iterable
from pathlib import Path

from claimcheck import outcomes as oc
from claimcheck.display import excerpt, printable, workflow_escape
from claimcheck.pages import words
from claimcheck.pages.claims_view import profile_words
from claimcheck.pages.manuscript_view import figure_state, held_form, value_source
from claimcheck.results import ClaimEntry, ClaimsDoc, _list_in, _Reader, measured_ok

#: how each outcome shows in Markdown (GitHub renders the emoji): its word's ``mark``
MARK = {w.word: w.mark for w in oc.WORDS}
#: the most characters of a table cell, and of a line outside the tables, before escaping (a results
#: file's megabyte title costs its row a cut, not GitHub's 1 MiB limit of a job summary, all of it)
MAX_CELL, MAX_LINE = 400, 4000


def is_matrix(doc: dict) -> bool:
    """Whether a document is ``claimcheck merge --json``'s matrix (else a run's ``claims.json``)."""
    f = _Reader(doc, "", [])  # claims that are not a list of objects are issues
    return (
        isinstance(doc.get("runners"), list)
        and all("cells" in c.raw for c in f.items("claims"))
        and not f.issues
    )


def _cell(text: object) -> str:
    text = excerpt(" ".join(str(text or "").split()), MAX_CELL, quote=False)
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _table_row(cells: Iterable[object]) -> str:
    """One row of a Markdown table, each cell on one line with its ``\\`` and ``|`` escaped."""
    return "| " + " | ".join(_cell(x) for x in cells) + " |"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def badge(outcome: str) -> str:
    """An outcome as Markdown: its mark and its label."""
    return f"{MARK.get(outcome, '❓')} {oc.label(outcome)}"


def markdown(doc: ClaimsDoc | dict) -> str:
    """The Markdown summary of a :class:`~claimcheck.results.ClaimsDoc` or a matrix (its JSON object):
    counts, one sentence per outcome, a row per claim."""
    if not isinstance(doc, ClaimsDoc):
        return _matrix_markdown(doc)
    entries, runner = doc.claims, doc.runner
    counts = oc.count(e.outcome for e in entries)
    chapters = doc.chapter_list()
    title = chapters[0].title if len(chapters) == 1 else f"the book, {len(chapters)} chapters"
    tally = " · ".join(f"{badge(o)} **{n}**" for o, n in counts.items())
    drifted = f" · Δ drifted **{len(doc.drifted)}**" if doc.drifted else ""
    lines = [f"### claimcheck{': ' + title if title else ''}", "", tally + drifted, ""]
    lines.append(f"Runner: {words.runner_line(runner)}  ")
    if len(chapters) == 1:
        lines += [f"Profile: {profile_words(doc, chapters[0])}", ""]
    else:
        lines += ["", "| Chapter | Claims | Profile |", "|---|---|---|"]
        for ch in chapters:
            mine = [e for e in entries if e.chapter == ch.id]
            tally = " · ".join(f"{badge(o)} {n}" for o, n in oc.count(e.outcome for e in mine).items())
            lines.append(_table_row((f"**{ch.id}** {ch.title}", tally, profile_words(doc, ch))))
        lines.append("")
    lines += [f"- {s}" for s in words.outcome_sentences(entries, runner, figure_state)]
    if doc.interrupted is not None:
        lines.append(f"- ⚠️ {_cell(words.interrupted_words(doc))}")
    sel = doc.selection
    if sel is not None and sel.partial and sel.carried:
        lines.append(
            f"- This run ran {len(sel.selected)} claims; {len(sel.carried)} rows "
            f"are carried from the run of {words.carried_times(entries)} (counts include them)"
        )
    several = len(chapters) > 1
    for ch in chapters:
        mine = [e for e in entries if (e.chapter or "") == ch.id or (not several and not e.chapter)]
        if several:
            lines += ["", f"#### {ch.id}: {ch.title}"]
        lines += _claim_table(mine)
    return _join(lines)


def _claim_table(entries: list[ClaimEntry]) -> list[str]:
    lines = ["", "| Claim | Verdict | Chapter | Here | Bar | Margin | Why |", "|---|---|---|---|---|---|---|"]
    for e in entries:
        m = words.margin(e)
        source = value_source(e)
        here = (words.measured_value(e) or "—") + (f" ({source})" if source else "")  # a value, and whose
        if e.carried is not None:
            here += f" (run of {e.carried.from_}{'; ' + e.carried.why if e.carried.why else ''})"
        chapter_value = words.chapter_value(e) or (words.quoted(e.locator) if e.locator else "")
        form = held_form(e)
        verdict = (
            badge(e.outcome) + (f" ({form.short})" if form else "") + (" · Δ drifted" if e.drifted else "")
        )
        cells = (f"**{e.id}** {e.title or ''}", verdict, chapter_value, here, words.bar_words(e))
        why = "; ".join(filter(None, (words.reason_words(e), form.words if form else "")))
        lines.append(_table_row((*cells, m.text if m else "", _short(why, 240 if form else 160))))
    return lines


def _matrix_markdown(doc: dict) -> str:
    """A matrix (``claimcheck merge --json``) in Markdown; a field of the wrong type reads as absent."""
    f = _Reader(doc, "", [])  # each field read as an object where it is one, else as absent
    labels = [str(r.raw.get("label") or r.raw.get("path") or "?") for r in f.items("runners")]
    lines = [f"### claimcheck: {len(_list_in(doc, 'claims'))} claims × {len(labels)} runners", ""]
    split = [str(s) for s in _list_in(doc, "split")]
    lines.append(f"Pass on one runner, fail on another: {', '.join(split) if split else 'none'}")
    lines += [f"- ⚠️ {_short(err, 300)}" for err in _list_in(doc, "errors")]
    lines += ["", _table_row(("Claim", "Chapter", *labels)), "|---|---|" + "---|" * len(labels)]
    for g in f.items("claims"):
        c = g.raw
        cells = g.at("cells", g.obj("cells"))
        outs = {str(cells.obj(lb).get("outcome")) for lb in labels}  # a list's too
        flag = " ⚠️ split" if c.get("split") else (" ≠" if len(outs) > 1 else "")
        unit = str(c.get("unit") or "")
        row = [
            f"**{c.get('key') or c.get('id')}**{flag} {c.get('title') or ''}",
            words.with_unit(str(c.get("stated") or ""), unit),
        ]
        for lb in labels:
            cell = cells.obj(lb) or {"outcome": oc.NOT_RUN}
            measured = cell.get("measured") if measured_ok(cell.get("measured")) else None
            value = words.measured_value(ClaimEntry("", "", measured=measured, unit=unit))
            value = value or cell.get("measured_display") or ""
            drifted = " · Δ drifted" if cell.get("drifted") else ""
            row.append(f"{badge(str(cell.get('outcome', '')))} {value}{drifted}".strip())
        lines.append(_table_row(row))
    return _join(lines)


def _join(lines: list[str]) -> str:
    """The Markdown of ``lines``, each escaped alone (:func:`claimcheck.display.printable`): a results
    file's text never starts a line of its own, a workflow command, a control sequence, a tag or a link."""
    cut = (line if line.startswith("|") else excerpt(line, MAX_LINE, quote=False) for line in lines)
    return "".join(printable(line, markdown=True) + "\n" for line in cut)


# --- annotations ----------------------------------------------------------------------------------
def _escape_prop(text: str) -> str:
    return workflow_escape(text).replace(":", "%3A").replace(",", "%2C")


def command(
    level: str, message: str, file: str | None = None, line: int | None = None, title: str = ""
) -> str:
    """One GitHub workflow command (``::error file=F,line=N,title=T::message``), escaped."""
    props = []
    if file:
        props.append(f"file={_escape_prop(file)}")
    if isinstance(line, int) and not isinstance(line, bool) and line > 0:
        props.append(f"line={line}")
    if title:
        props.append(f"title={_escape_prop(title)}")
    return f"::{level}{' ' if props else ''}{','.join(props)}::{workflow_escape(message)}"


def _rel(path: object, base: Path) -> str:
    p = Path(str(path))
    try:
        rel = os.path.relpath(p.resolve(), base.resolve())
    except (ValueError, OSError, RuntimeError):  # a NUL byte; a symlink loop (RuntimeError in 3.11)
        return str(p)
    return str(p) if rel.startswith("..") else Path(rel).as_posix()


def annotations(doc: ClaimsDoc | dict, base: str | Path = ".") -> list[str]:
    """GitHub annotations for a ``claims.json`` (none for a matrix): drift and unbound numbers at their
    manuscript line, registry problems at the registry's, failing or undecided claims at their test."""
    if not isinstance(doc, ClaimsDoc):
        return []
    base = Path(base)
    out: list[str] = []
    registries = doc.registries
    registry_of = {(r.chapter_id or str(r.chapter.get("id") or "")): r.path for r in registries if r.path}
    first_registry = registries[0].path if registries else None
    several = len(registry_of) > 1
    for reg in registries:
        if reg.problems is not None:
            for p in reg.problems:
                out.append(command("error", p.message, _rel(reg.path, base), p.line, "registry problem"))
        else:
            out += [command("error", i, _rel(reg.path, base), None, "registry problem") for i in reg.issues]
    for e in doc.claims:
        cid = words.claim_name(e, several)
        registry = registry_of.get(e.chapter or "", first_registry)
        out += _drift_annotations(e, cid, registry, base)
        out += _outcome_annotation(e, cid, registry, base)
    if doc.interrupted is not None:
        out.append(command("warning", words.interrupted_words(doc), title="claims run interrupted"))
    return out + _manuscript_annotations(doc, base)


def _drift_annotations(e: ClaimEntry, cid: str, registry: str | None, base: Path) -> list[str]:
    drift = e.drift
    if drift is None:
        return []
    out = []
    form = held_form(e)
    source = value_source(e)
    verdict = (
        f"; {source or 'its measurement'}: {oc.label(str(e.outcome))}" if e.outcome in oc.OUTCOMES else ""
    )
    verdict += f" ({form.short})" if form and not source else ""
    bad = [q for q in drift.quotes if q.failing]
    for q, said in zip(bad, words.drift_words(e)):
        if q.status == "drift" and q.line:
            at = _rel(drift.manuscript, base)
            out.append(command("error", f"{said}{verdict}", at, q.line, f"{cid} drifted"))
        else:
            where = _rel(registry, base) if registry else None
            out.append(command("error", said, where, e.registry_line, f"{cid} locator {q.status}"))
    return out


def _outcome_annotation(e: ClaimEntry, cid: str, registry: str | None, base: Path) -> list[str]:
    word = oc.WORD.get(str(e.outcome))
    if word is None or not word.annotation:
        return []
    loc = next((x for x in e.locations if x.get("file")), None)
    file, line = (loc["file"], loc.get("line")) if loc else (registry, e.registry_line)
    facts = ", ".join([*words.value_words(e), f"bar {words.bar_words(e)}"])
    reason = _short(words.reason_words(e), 400)
    where = _rel(file, base) if file else None
    return [command(word.annotation, f"{facts}. {reason}".strip(), where, line, f"{cid} {word.phrase}")]


def _manuscript_annotations(doc: ClaimsDoc, base: Path) -> list[str]:
    out = []
    for m in doc.manuscripts or []:
        audit = m.get("audit") or {}
        for n in audit.get("unbound_numbers") or []:
            said = f"{n.get('text')} is bound to no claim and not waived: {n.get('context')}"
            out.append(command("warning", said, _rel(m.get("path"), base), n.get("line"), "unbound number"))
        registry = _rel(m.get("registry"), base) if m.get("registry") else None
        out += [
            command("error", str(p), registry, None, "waiver problem") for p in audit.get("problems") or []
        ]
    return out
